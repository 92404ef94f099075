#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# sqlite-recovery.sh HARNESS PROGRAM [ARGS]: run PROGRAM under harness.sh
# with RecoveryBackend = sqlite (issue #9). Extra NFSv4 block items come
# from $SQLITE_E2E_NFSV4_OPTS ("Lease_Lifetime = 5;" ...), extra blocks
# from $SQLITE_E2E_CONF (e.g. "SQLITE_RECOVERY { Group_Commit_Window_Ms
# = 0; }"); set GRACELESS=false for a grace period after restarts. Kept as
# a script because a ';' would split a CMake argument.
harness=$1
shift
exec "$harness" --nfsv4-opts "RecoveryBackend = sqlite; ${SQLITE_E2E_NFSV4_OPTS:-}" \
	--conf-extra "${SQLITE_E2E_CONF:-}" -- "$@"
