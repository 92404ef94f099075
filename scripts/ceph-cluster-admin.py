#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# ceph-cluster-admin.py CONF prepare DIR OSDS
# ceph-cluster-admin.py CONF wait SECONDS
#
# The monitor commands of scripts/ceph-cluster.sh, through one librados
# connection as client.admin (the ceph CLI costs a Python start-up and a
# connection per command: seconds each on a loaded machine).
#
# prepare: the keys of mgr.x, mds.a and client.ganesha (keyrings written
#   into DIR: mgr.x/keyring, mds.a/keyring, ceph.client.ganesha.keyring),
#   OSDS new OSD ids with a key each (DIR/osd.ID/keyring, DIR/osd.ID/uuid;
#   prints the ids, one a line), the pools cephfs_metadata, cephfs_data
#   and nfs-ganesha (application nfs) and the file system cephfs.
# wait: until the file system has an active MDS and every placement group
#   is active+clean, at most SECONDS; on timeout says what is missing.
# Exit status 0, or 1 with the reason on stderr.
import json
import os
import subprocess
import sys
import time
import uuid

import rados

ME = "ceph-cluster"


def die(msg):
    print(f"{ME}: {msg}", file=sys.stderr)
    sys.exit(1)


def mon(cluster, what, inbuf=b"", **cmd):
    """one monitor command; its output buffer, or die with WHAT"""
    ret, out, err = cluster.mon_command(json.dumps(cmd), inbuf, timeout=60)
    if ret != 0:
        die(f"{what}: {cmd['prefix']}: {err} ({ret})")
    return out


def write_private(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def keyring(cluster, entity, caps):
    return mon(cluster, f"the key of {entity}", prefix="auth get-or-create",
               entity=entity, caps=caps, format="plain")


def prepare(cluster, d, osds):
    write_private(f"{d}/mgr.x/keyring", keyring(
        cluster, "mgr.x",
        ["mon", "allow profile mgr", "osd", "allow *", "mds", "allow *"]))
    write_private(f"{d}/mds.a/keyring", keyring(
        cluster, "mds.a",
        ["mon", "allow profile mds", "osd", "allow rwx", "mds", "allow *",
         "mgr", "allow profile mds"]))
    for _ in range(osds):
        u = str(uuid.uuid4())
        key = rados_key()
        secrets = json.dumps({"cephx_secret": key}).encode()
        out = mon(cluster, "a new OSD", secrets, prefix="osd new", uuid=u,
                  format="json")
        osd_id = json.loads(out)["osdid"]
        write_private(f"{d}/osd.{osd_id}/keyring",
                      f"[osd.{osd_id}]\n\tkey = {key}\n".encode())
        with open(f"{d}/osd.{osd_id}/uuid", "w") as f:
            f.write(u + "\n")
        print(osd_id)
    for pool, pgs in (("cephfs_metadata", 16), ("cephfs_data", 16),
                      ("nfs-ganesha", 8)):
        mon(cluster, f"the pool {pool}", prefix="osd pool create",
            pool=pool, pg_num=pgs)
    mon(cluster, "the pool nfs-ganesha", prefix="osd pool application enable",
        pool="nfs-ganesha", app="nfs")
    mon(cluster, "the file system", prefix="fs new", fs_name="cephfs",
        metadata="cephfs_metadata", data="cephfs_data")
    # Ganesha's user: its pool (recovery records, %url objects) and the
    # file system, as `ceph fs authorize` would give it
    write_private(f"{d}/ceph.client.ganesha.keyring", keyring(
        cluster, "client.ganesha",
        ["mon", "allow r",
         "osd", "allow rw pool=nfs-ganesha, allow rw tag cephfs data=cephfs",
         "mds", "allow rw"]))


def rados_key():
    """a new cephx secret"""
    return subprocess.run(["ceph-authtool", "--gen-print-key"], check=True,
                          capture_output=True, text=True).stdout.strip()


def state(cluster):
    """what is still missing: a list of reasons, empty when ready"""
    missing = []
    fsmap = json.loads(mon(cluster, "the file system map", prefix="fs dump",
                           format="json"))
    fss = fsmap.get("filesystems", [])
    active = [i for f in fss for i in f["mdsmap"]["info"].values()
              if i["state"] == "up:active"]
    if not active:
        missing.append("an active MDS")
    st = json.loads(mon(cluster, "the status", prefix="status",
                        format="json"))
    pgmap = st.get("pgmap", {})
    total = pgmap.get("num_pgs", 0)
    clean = sum(s["count"] for s in pgmap.get("pgs_by_state", [])
                if s["state_name"] == "active+clean")
    if total == 0 or clean != total:
        missing.append(f"placement groups active+clean ({clean} of {total})")
    osdmap = st.get("osdmap", {})
    if osdmap.get("num_up_osds", 0) != osdmap.get("num_osds", -1):
        missing.append("every OSD up ({} of {})".format(
            osdmap.get("num_up_osds", 0), osdmap.get("num_osds", 0)))
    return missing


def wait(cluster, seconds):
    deadline = time.monotonic() + seconds
    while True:
        missing = state(cluster)
        if not missing:
            return
        if time.monotonic() > deadline:
            die("not ready after {} s: {}".format(seconds, "; ".join(missing)))
        time.sleep(0.5)


def main():
    if len(sys.argv) < 3:
        die("usage: ceph-cluster-admin.py CONF prepare DIR OSDS | CONF wait SECONDS")
    conf, verb = sys.argv[1], sys.argv[2]
    cluster = rados.Rados(conffile=conf, name="client.admin",
                          conf={"client_mount_timeout": "30"})
    try:
        cluster.connect(timeout=30)
    except rados.Error as e:
        die(f"cannot connect to the monitor: {e}")
    try:
        if verb == "prepare" and len(sys.argv) == 5:
            prepare(cluster, sys.argv[3], int(sys.argv[4]))
        elif verb == "wait" and len(sys.argv) == 4:
            wait(cluster, int(sys.argv[3]))
        else:
            die(f"bad arguments: {' '.join(sys.argv[2:])}")
    finally:
        cluster.shutdown()


if __name__ == "__main__":
    main()
