#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# statsfs-setup.sh setup|cleanup DIR
#
# For e2e_proto_stats: clonefs-setup.sh's XFS filesystem with reflink and
# its export /xfs (Export_Id 6), plus a second export /xfs2 (Export_Id 7)
# of the directory two/ on it, so that two exports can clone at once.
# Where the filesystem cannot be made, DIR/skip says why (as clonefs).
set -eu
sh "$(dirname "$0")/clonefs-setup.sh" "$1" "$2"
[ "$1" = setup ] && [ ! -f "$2/skip" ] || exit 0
mkdir -p "$2/x/two"
cat >>"$2/exports.conf" <<CONF
EXPORT {
	Export_Id = 7;
	Path = "$2/x/two";
	Pseudo = "/xfs2";
	FSAL { Name = SPARSE; }
}
CONF
