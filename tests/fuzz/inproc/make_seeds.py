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


ANON = b"\0" * 16

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


def putrootfh():
    return op(24)


def lookup(name):
    return op(15, opaque(name))


def getattr_():
    return op(9, GETATTR_BITS)


def getfh():
    return op(10)


def open_create(name, owner=b"owner-A", access=3, seqid=0, cid=0, want=0):
    return op(18, u32(seqid) + u32(access | want) + u32(0) +
              u64(0) + opaque(owner) +
              u32(1) + u32(0) + bitmap(0, 0x2) + opaque(u32(0o644)) +
              u32(0) + opaque(name))


def open_nocreate(name, owner=b"owner-B", access=1, seqid=0):
    return op(18, u32(seqid) + u32(access) + u32(0) + u64(0) +
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


def session_setup(owner=b"fuzz-client-A", conn=0, cid=0, back=False):
    return (record(compound(1, exchange_id(owner)), conn=conn) +
            record(compound(1, create_session(cid, back)), conn=conn))


def in_session(seq, *ops, sid=0, minor=2, conn=0, cred=0, slot=0):
    return record(compound(minor, sequence(sid, seq, slot), *ops),
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
        1, putrootfh(), lookup("sparse"), open_create("s"),
        write(stateid(0), 0, b"d" * 4096),
        write(stateid(0), 1 << 20, b"e" * 4096),
        seek(stateid(0), 0, 1), seek(stateid(0), 8192, 0),
        read_plus(stateid(0), 0, 2 << 20),
        allocate(stateid(0), 65536, 65536),
        deallocate(stateid(0), 0, 4096),
        read_plus(stateid(0), 0, 1 << 16))
    s["copy-clone"] = session_setup() + in_session(
        1, putrootfh(), lookup("sparse"), open_create("src"),
        write(stateid(0), 0, b"c" * 8192), savefh(),
        putrootfh(), lookup("sparse"), open_create("dst", owner=b"o2"),
        copy(stateid(0), stateid(1), 0, 0, 8192),
        clone(stateid(0), stateid(1), 0, 0, 4096),
        copy(stateid(0), stateid(1), 0, 4096, 0, sync=False)) + in_session(
        2, putrootfh(), offload_status(stateid(2)))
    s["xattrs"] = session_setup() + in_session(
        1, putrootfh(), lookup("sparse"), open_create("x"),
        setxattr("user.a", b"value"), getxattr("user.a"), listxattrs(),
        removexattr("user.a"), getxattr("user.a"))
    s["directories"] = session_setup() + in_session(
        1, putrootfh(), lookup("sparse"), create_dir("d"), getfh(),
        create_symlink("ln", "../d"), readlink(), lookupp(),
        readdir(), open_create("g"), close(stateid(0)), savefh(),
        lookupp(), lookup("d"), link("g2"), restorefh()) + in_session(
        2, putrootfh(), lookup("sparse"), rename("d", "e"),
        secinfo("e"), lookup("e"), secinfo_no_name(), lookupp(),
        remove("g"), readdir(), setattr_mode(0o700), getattr_())
    s["delegation-two-clients"] = session_setup() + session_setup(
        owner=b"fuzz-client-B", conn=1, cid=1) + in_session(
        1, putrootfh(), lookup("sparse"), open_create("dl", access=1)) + \
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
        compound(2, sequence(0, 3), destroy_session(0))) + record(
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
        compound(2, putrootfh(), getattr_()), cred=3) + record(
        compound(1, putrootfh(), lookup("sparse"), getattr_()), cred=2,
        conn=1)
    return s


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, data in seeds().items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
