#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# xattr-ro-setup.sh DIR: a read-only FSAL_SPARSE export for e2e_proto_xattr
# (Pseudo /xattr_ro, Export_Id 30): DIR/ro/f holding user.k = "v", and
# DIR/exports.conf, which the harness pulls in with --conf-extra.
set -eu
d=$1
rm -rf "$d"
mkdir -p "$d/ro"
echo data >"$d/ro/f"
python3 -c 'import os, sys; os.setxattr(sys.argv[1], "user.k", b"v")' "$d/ro/f"
cat >"$d/exports.conf" <<CONF
EXPORT {
	Export_Id = 30;
	Path = "$d/ro";
	Pseudo = "/xattr_ro";
	Access_Type = RO;
	Squash = No_Root_Squash;
	SecType = sys;
	Protocols = 4;
	FSAL { Name = SPARSE; }
}
CONF
