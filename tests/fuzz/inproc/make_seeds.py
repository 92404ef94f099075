#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
"""make_seeds.py DIR: the seed corpus of fuzz_inproc (tests/fuzz/inproc).

Each seed is a sequence of calls in fuzz_inproc's input format (see the
comment at the top of fuzz_inproc.c): the compounds a client sends for a
session and its common work (EXCHANGE_ID, CREATE_SESSION, SEQUENCE with
OPEN/READ/WRITE/LOCK/CLOSE, the NFSv4.2 ops, directory ops, two clients on
two connections with a delegation, NFSv4.0's SETCLIENTID), coded by hand
from RFC 8881/7862/8276 XDR, with placeholders where the server chooses
the value (client ID, session ID, stateids, SETCLIENTID verifier).
"""
import os
import struct
import sys


def u32(v):
    return struct.pack(">I", v & 0xFFFFFFFF)


def u64(v):
    return struct.pack(">Q", v)


def opaque(b):
    if isinstance(b, str):
        b = b.encode()
    return u32(len(b)) + b + b"\0" * ((4 - len(b) % 4) % 4)


def bitmap(*words):
    return u32(len(words)) + b"".join(u32(w) for w in words)


# placeholders (fuzz_inproc.c fz_substitute)
def clientid(i=0):
    return bytes([0xFA, 0xCE, ord("C"), i]) + b"\0" * 4


def verifier(i=0):
    return bytes([0xFA, 0xCE, ord("V"), i]) + b"\0" * 4


def sessionid(i=0):
    return bytes([0xFA, 0xCE, ord("S"), i]) + b"\0" * 12


def stateid(i=0, seqid=0):
    return u32(seqid) + bytes([0xFA, 0xCE, ord("T"), i]) + b"\0" * 8


def handle(i=0):
    """the XDR of the i-th handle a GETFH returned (nfs_fh4 or nfs_fh3)"""
    return bytes([0xFA, 0xCE, ord("F"), i])


ANON = b"\0" * 16
# the current stateid (RFC 8881 16.2.3.1.2): the one the compound's OPEN
# or LOCK just returned (a placeholder names only those of earlier calls)
CURRENT = u32(1) + b"\0" * 12

# attributes: type, change, size, fsid, fileid, mode, numlinks, owner,
# owner_group, space_used, time_access/modify/metadata
GETATTR_BITS = bitmap(0x0010011A, 0x00B0A23A)


def op(num, body=b""):
    return u32(num) + body


def compound(minor, *ops, tag=b""):
    return opaque(tag) + u32(minor) + u32(len(ops)) + b"".join(ops)


def record(args, conn=0, cred=0, proc=1, v3=False):
    return (bytes([conn, cred, proc | (0x80 if v3 else 0), 0]) +
            struct.pack(">H", len(args)) + args)


# ----- operations (RFC 8881 section 18, RFC 7862 section 15) -----
def exchange_id(owner):
    return op(42, b"verifier" + opaque(owner) + u32(0) + u32(0) + u32(0))


def chan_attrs(maxreq, maxresp, maxops, maxreqs):
    return (u32(0) + u32(maxreq) + u32(maxresp) + u32(4096) +
            u32(maxops) + u32(maxreqs) + u32(0))


def create_session(cid=0, back=False):
    return op(43, clientid(cid) + u32(1) + u32(2 if back else 0) +
              chan_attrs(1049620, 1049480, 16, 8) +
              chan_attrs(4096, 4096, 2, 1) +
              u32(0x40000000) + u32(1) + u32(0))


def sequence(sid=0, seq=1, slot=0):
    return op(53, sessionid(sid) + u32(seq) + u32(slot) + u32(0) + u32(0))


def putfh(i):
    return op(22, handle(i))


def putrootfh():
    return op(24)


def lookup(name):
    return op(15, opaque(name))


def getattr_():
    return op(9, GETATTR_BITS)


def getfh():
    return op(10)


def open_create(name, owner=b"owner-A", access=3, seqid=0, cid=0, want=0,
                mode=0o644):
    return op(18, u32(seqid) + u32(access | want) + u32(0) +
              clientid(cid) + opaque(owner) +
              u32(1) + u32(0) + bitmap(0, 0x2) + opaque(u32(mode)) +
              u32(0) + opaque(name))


def open_nocreate(name, owner=b"owner-B", access=1, seqid=0, cid=0):
    return op(18, u32(seqid) + u32(access) + u32(0) + clientid(cid) +
              opaque(owner) + u32(0) + u32(0) + opaque(name))


def write(st, offset, data, stable=2):
    return op(38, st + u64(offset) + u32(stable) + opaque(data))


def read(st, offset, count):
    return op(25, st + u64(offset) + u32(count))


def close(st, seqid=0):
    return op(4, u32(seqid) + st)


def lock(open_st, offset, length, owner=b"lock-A"):
    return op(12, u32(2) + u32(0) + u64(offset) + u64(length) + u32(1) +
              u32(0) + open_st + u32(0) + u64(0) + opaque(owner))


def locku(lock_st, offset, length):
    return op(14, u32(2) + u32(0) + lock_st + u64(offset) + u64(length))


def lockt(offset, length):
    return op(13, u32(2) + u64(offset) + u64(length) + u64(0) +
              opaque(b"lock-T"))


def test_stateid(*sts):
    return op(55, u32(len(sts)) + b"".join(sts))


def free_stateid(st):
    return op(45, st)


def delegreturn(st):
    return op(8, st)


def seek(st, offset, what):
    return op(69, st + u64(offset) + u32(what))


def read_plus(st, offset, count):
    return op(68, st + u64(offset) + u32(count))


def allocate(st, offset, length):
    return op(59, st + u64(offset) + u64(length))


def deallocate(st, offset, length):
    return op(62, st + u64(offset) + u64(length))


def copy(src, dst, soff, doff, count, sync=True):
    return op(60, src + dst + u64(soff) + u64(doff) + u64(count) +
              u32(0) + u32(1 if sync else 0) + u32(0))


def clone(src, dst, soff, doff, count):
    return op(71, src + dst + u64(soff) + u64(doff) + u64(count))


def offload_status(st):
    return op(67, st)


def setxattr(key, value):
    return op(73, u32(0) + opaque(key) + opaque(value))


def getxattr(key):
    return op(72, opaque(key))


def listxattrs():
    return op(74, u64(0) + u32(4096))


def removexattr(key):
    return op(75, opaque(key))


def savefh():
    return op(32)


def restorefh():
    return op(31)


def create_dir(name):
    return op(6, u32(2) + opaque(name) + bitmap(0, 0x2) + opaque(u32(0o755)))


def create_symlink(name, target):
    return op(6, u32(5) + opaque(target) + opaque(name) + bitmap(0, 0x2) +
              opaque(u32(0o777)))


def readdir():
    return op(26, u64(0) + b"\0" * 8 + u32(4096) + u32(8192) + GETATTR_BITS)


def rename(old, new):
    return op(29, opaque(old) + opaque(new))


def link(name):
    return op(11, opaque(name))


def remove(name):
    return op(28, opaque(name))


def access(bits=0x3F):
    return op(3, u32(bits))


def setattr_size(st, size):
    return op(34, st + bitmap(0x10) + opaque(u64(size)))


def setattr_mode(mode):
    return op(34, ANON + bitmap(0, 0x2) + opaque(u32(mode)))


def lookupp():
    return op(16)


def readlink():
    return op(27)


def secinfo(name):
    return op(33, opaque(name))


def secinfo_no_name():
    return op(52, u32(0))


def reclaim_complete():
    return op(58, u32(0))


def destroy_session(sid=0):
    return op(44, sessionid(sid))


def destroy_clientid(cid=0):
    return op(57, clientid(cid))


def layoutget(st, iomode=1):
    return op(50, u32(0) + u32(1) + u32(iomode) + u64(0) + u64(2**64 - 1) +
              u64(0) + st + u32(4096))


def bind_conn(sid=0):
    return op(41, sessionid(sid) + u32(3) + u32(0))


def setclientid(name):
    return op(35, b"verifie0" + opaque(name) + u32(0x40000000) +
              opaque(b"tcp") + opaque(b"127.0.0.1.3.255") + u32(1))


def setclientid_confirm(cid=0, verf=0):
    return op(36, clientid(cid) + verifier(verf))


def open_confirm(st, seqid):
    return op(20, st + u32(seqid))


def renew(cid=0):
    return op(30, clientid(cid))


# ----- NFSv3 (RFC 1813), on handles a GETFH returned -----


def sattr3(mode=None, size=None):
    return ((u32(1) + u32(mode)) if mode is not None else u32(0)) + \
        u32(0) + u32(0) + \
        ((u32(1) + u64(size)) if size is not None else u32(0)) + \
        u32(0) + u32(0)


def v3(proc, args, conn=0, cred=0):
    return record(args, conn=conn, cred=cred, proc=proc, v3=True)


def root_handle_v40():
    """handle 0: the export's root, by an NFSv4.0 COMPOUND (no client ID
    needed)"""
    return record(compound(0, putrootfh(), lookup("sparse"), getfh()))


def session_setup(owner=b"fuzz-client-A", conn=0, cid=0, back=False):
    """EXCHANGE_ID, CREATE_SESSION and the RECLAIM_COMPLETE without which
    an NFSv4.1 client's OPEN (CLAIM_NULL) gets NFS4ERR_GRACE (slot 0's
    sequence 1; in_session's start at 2)"""
    return (record(compound(1, exchange_id(owner)), conn=conn) +
            record(compound(1, create_session(cid, back)), conn=conn) +
            record(compound(1, sequence(cid, 1), reclaim_complete()),
                   conn=conn))


def in_session(seq, *ops, sid=0, minor=2, conn=0, cred=0, slot=0):
    """a COMPOUND in session sid: SEQUENCE (slot's sequence seq + 1), ops"""
    return record(compound(minor, sequence(sid, seq + 1, slot), *ops),
                  conn=conn, cred=cred)


def seeds():
    s = {}
    s["session-getattr"] = session_setup() + in_session(
        1, reclaim_complete()) + in_session(
        2, putrootfh(), getattr_(), getfh(), lookup("sparse"), getattr_(),
        access())
    s["open-write-read-close"] = session_setup() + in_session(
        1, putrootfh(), lookup("sparse"),
        open_create("f"), getfh(), getattr_()) + in_session(
        2, putrootfh(), lookup("sparse"), lookup("f"),
        write(stateid(0), 0, b"hello, sparse world\n"),
        write(stateid(0), 1 << 20, b"x" * 100),
        read(stateid(0), 0, 4096), setattr_size(stateid(0), 65536),
        getattr_()) + in_session(
        3, putrootfh(), lookup("sparse"), lookup("f"), close(stateid(0)))
    s["lock"] = session_setup() + in_session(
        1, putrootfh(), lookup("sparse"), open_create("l")) + in_session(
        2, putrootfh(), lookup("sparse"), lookup("l"),
        lock(stateid(0), 0, 100), lockt(50, 10)) + in_session(
        3, putrootfh(), lookup("sparse"), lookup("l"),
        locku(stateid(1), 0, 100), test_stateid(stateid(0), stateid(1)),
        free_stateid(stateid(1)), close(stateid(0)))
    s["nfsv42-sparse"] = session_setup() + in_session(
        1, putrootfh(), lookup("sparse"), open_create("s"), getfh(),
        write(CURRENT, 0, b"d" * 4096),
        write(CURRENT, 1 << 20, b"e" * 4096)) + in_session(
        2, putfh(0), seek(stateid(0), 0, 1), seek(stateid(0), 8192, 0),
        read_plus(stateid(0), 0, 2 << 20),
        allocate(stateid(0), 65536, 65536),
        deallocate(stateid(0), 0, 4096),
        read_plus(stateid(0), 0, 1 << 16), getattr_())
    s["copy-clone"] = session_setup() + in_session(
        1, putrootfh(), lookup("sparse"), open_create("src"), getfh(),
        write(CURRENT, 0, b"c" * 8192)) + in_session(
        2, putrootfh(), lookup("sparse"), open_create("dst", owner=b"o2"),
        getfh()) + in_session(
        3, putfh(0), savefh(), putfh(1),
        copy(stateid(0), stateid(1), 0, 0, 8192),
        clone(stateid(0), stateid(1), 0, 0, 4096),
        copy(stateid(0), stateid(1), 0, 4096, 0, sync=False)) + in_session(
        4, putfh(1), offload_status(stateid(2)), read(stateid(1), 0, 100))
    s["xattrs"] = session_setup() + in_session(
        1, putrootfh(), lookup("sparse"), open_create("x"),
        setxattr("user.a", b"value"), getxattr("user.a"), listxattrs(),
        removexattr("user.a"), getxattr("user.a"))
    s["directories"] = session_setup() + in_session(
        1, putrootfh(), lookup("sparse"), create_dir("d"), getfh(),
        create_symlink("ln", "../d"), readlink()) + in_session(
        2, putrootfh(), lookup("sparse"), readdir(), open_create("g"),
        close(CURRENT), savefh(), lookupp(), lookup("d"),
        link("g2"), restorefh()) + in_session(
        3, putrootfh(), lookup("sparse"), savefh(), rename("d", "e"),
        secinfo("e"), lookup("e"), secinfo_no_name(), lookupp(),
        remove("g"), readdir(), setattr_mode(0o700), getattr_())
    s["delegation-two-clients"] = session_setup(back=True) + session_setup(
        owner=b"fuzz-client-B", conn=1, cid=1) + in_session(
        1, putrootfh(), lookup("sparse"),
        open_create("dl", access=1, mode=0o666)) + \
        in_session(1, putrootfh(), lookup("sparse"),
                   open_nocreate("dl", access=2), sid=1, conn=1,
                   cred=1) + in_session(
        2, putrootfh(), lookup("sparse"), lookup("dl"),
        delegreturn(stateid(1)), test_stateid(stateid(1)))
    s["back-channel"] = session_setup(back=True) + in_session(
        1, putrootfh(), lookup("sparse"), open_create("b", access=1)) + \
        record(compound(2, bind_conn(0)), conn=1) + in_session(
        2, putrootfh(), lookup("sparse"), lookup("b"),
        layoutget(stateid(0))) + record(
        compound(2, sequence(0, 4), destroy_session(0))) + record(
        compound(2, destroy_clientid(0)))
    s["nfsv40"] = record(compound(0, setclientid("fuzz-v40"))) + record(
        compound(0, setclientid_confirm(0, 0))) + record(compound(
            0, putrootfh(), lookup("sparse"),
            open_create("v40", owner=b"own40", seqid=0, cid=0),
            getfh())) + record(compound(
                0, putrootfh(), lookup("sparse"), lookup("v40"),
                open_confirm(stateid(0, 1), 1))) + record(compound(
                    0, putrootfh(), lookup("sparse"), lookup("v40"),
                    write(stateid(0), 0, b"v40"), renew(0),
                    close(stateid(0), seqid=2)))
    s["null-and-auth"] = record(b"", proc=0) + record(
        compound(0, putrootfh(), getattr_()), cred=3) + record(
        compound(0, putrootfh(), lookup("sparse"), getattr_(),
                 open_nocreate("nothing")), cred=2, conn=1) + record(
        compound(2, putrootfh(), getattr_()), cred=1)
    s["nfsv3"] = root_handle_v40() + v3(0, b"") + v3(
        1, handle(0)) + v3(19, handle(0)) + v3(20, handle(0)) + v3(
        18, handle(0)) + v3(4, handle(0) + u32(0x3F)) + v3(
        8, handle(0) + opaque("f3") + u32(0) + sattr3(0o644)) + v3(
        3, handle(0) + opaque("f3")) + v3(
        9, handle(0) + opaque("d3") + sattr3(0o755)) + v3(
        10, handle(0) + opaque("l3") + sattr3(0o777) + opaque("f3")) + \
        v3(17, handle(0) + u64(0) + b"\0" * 8 + u32(4096) + u32(8192)) + \
        v3(16, handle(0) + u64(0) + b"\0" * 8 + u32(4096)) + v3(
        14, handle(0) + opaque("d3") + handle(0) + opaque("e3")) + v3(
        13, handle(0) + opaque("e3")) + v3(
        12, handle(0) + opaque("l3"), cred=1)
    # the file by its handle (handle 1): I/O, attributes, link, remove
    s["nfsv3-io"] = root_handle_v40() + v3(
        8, handle(0) + opaque("g3") + u32(0) + sattr3(0o666)) + record(
        compound(0, putrootfh(), lookup("sparse"), lookup("g3"),
                 getfh())) + v3(
        7, handle(1) + u64(0) + u32(11) + u32(0) + opaque(b"hello, nfs3")) + \
        v3(7, handle(1) + u64(1 << 30) + u32(4) + u32(2) + opaque(b"tail")) + \
        v3(6, handle(1) + u64(0) + u32(65536)) + v3(
        21, handle(1) + u64(0) + u32(0)) + v3(
        2, handle(1) + sattr3(size=4096) + u32(0)) + v3(
        15, handle(1) + handle(0) + opaque("g3-link")) + v3(
        5, handle(1)) + v3(6, handle(1) + u64(0) + u32(100), cred=2) + \
        v3(12, handle(0) + opaque("g3"))
    return s


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, data in seeds().items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
