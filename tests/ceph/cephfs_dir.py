#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# cephfs_dir.py CONF mkdir|rmtree PATH: make the directory PATH of a
# CephFS, or remove it with everything below it, through libcephfs as
# client.admin, without mounting the file system.  harness.sh --ceph mounts
# only a test's own directory (ceph-fuse -r PATH): whatever happens to that
# mount (a killed test whose directory another harness removes), nothing
# outside it can be reached through it.
import stat
import sys

import cephfs


def rmtree(fs, path):
    d = fs.opendir(path)
    try:
        names = []
        while True:
            e = fs.readdir(d)
            if e is None:
                break
            name = e.d_name.decode()
            if name not in (".", ".."):
                names.append(name)
    finally:
        fs.closedir(d)
    for name in names:
        child = f"{path}/{name}"
        if stat.S_ISDIR(fs.lstat(child).st_mode):
            rmtree(fs, child)
        else:
            fs.unlink(child)
    fs.rmdir(path)


def main():
    if len(sys.argv) != 4 or sys.argv[2] not in ("mkdir", "rmtree"):
        print("usage: cephfs_dir.py CONF mkdir|rmtree PATH", file=sys.stderr)
        sys.exit(2)
    conf, verb, path = sys.argv[1:]
    fs = cephfs.LibCephFS(conffile=conf, auth_id="admin")
    fs.conf_set("client_mount_timeout", "30")
    fs.mount()
    try:
        if verb == "mkdir":
            fs.mkdir(path, 0o755)
        else:
            try:
                rmtree(fs, path)
            except cephfs.ObjectNotFound:
                pass
    finally:
        fs.shutdown()


if __name__ == "__main__":
    main()
