# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# Parity with FSAL_VFS: the behaviours an independent NFSv4.1 conformance
# run checks that reach the FSAL (object types, RENAME edge cases, OPEN and
# current-stateid variants, reclaim after a restart).  Each runs against
# FSAL_SPARSE and, with SPARSE_E2E_FSAL=VFS, against FSAL_VFS.
set(parity_e2e_dir ${CMAKE_CURRENT_SOURCE_DIR})
foreach(t e2e_parity_objects e2e_parity_rename e2e_parity_state)
  sparse_e2e_test(${t} SOURCES ${parity_e2e_dir}/${t}.c TIMEOUT 120)
endforeach()

# reclaim needs a grace period after the restart
sparse_e2e_test(e2e_parity_reclaim
  SOURCES ${parity_e2e_dir}/e2e_parity_reclaim.c TIMEOUT 120)
set_property(TEST e2e/e2e_parity_reclaim APPEND PROPERTY
  ENVIRONMENT GRACELESS=false)
