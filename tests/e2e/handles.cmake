# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# FSAL_SPARSE handles (issue #6): filesystem identity, tags, export
# confinement, stable fsid.  These forge handles with FSAL_SPARSE's own
# codec (sparse_fh.c), so they are FSAL_SPARSE only (exit 77 under VFS).
set(sparse_fsal_dir ${CMAKE_SOURCE_DIR}/src/FSAL/FSAL_SPARSE)

sparse_e2e_test(e2e_fsal_confine
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_fsal_confine.c
          ${sparse_fsal_dir}/sparse_fh.c
  TIMEOUT 180)
target_include_directories(e2e_fsal_confine PRIVATE ${sparse_fsal_dir})
set_tests_properties(e2e/e2e_fsal_confine PROPERTIES SKIP_RETURN_CODE 77)

# Two exports on two fresh ext4 filesystems (loop devices; skipped with the
# reason where they cannot be mounted).  A setup fixture mounts them, a
# cleanup fixture unmounts them whatever the test did.
set(multifs_dir ${CMAKE_CURRENT_BINARY_DIR}/multifs)
sparse_e2e_test(e2e_fsal_multifs
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_fsal_multifs.c
          ${sparse_fsal_dir}/sparse_fh.c
  TIMEOUT 180
  HARNESS_ARGS --conf-extra "%include \"${multifs_dir}/exports.conf\"")
target_include_directories(e2e_fsal_multifs PRIVATE ${sparse_fsal_dir})
target_compile_definitions(e2e_fsal_multifs PRIVATE
  E2E_MULTIFS_DIR="${multifs_dir}")
sparse_loop_fixture(e2e_fsal_multifs multifs multifs-setup.sh)

# Export isolation (issue #16).  The name suites run the server with
# Protocols = 3, 4 (NFSv3 through the harness's private rpcbind stub,
# which needs root) against FSAL_SPARSE and FSAL_VFS alike.
sparse_e2e_test(e2e_isolation_names
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_isolation_names.c
          ${CMAKE_CURRENT_SOURCE_DIR}/nfs3_test.c
  TIMEOUT 120 HARNESS_ARGS --needs-root --protocols "3, 4")
sparse_e2e_run(e2e_isolation_names_vfs e2e_isolation_names
  TIMEOUT 120 HARNESS_ARGS --needs-root --protocols "3, 4" --fsal VFS)

# A read-only export: every modifying NFSv4 op and NFSv3 procedure is
# ROFS and leaves the backing store as it was (patch 0102).
sparse_e2e_test(e2e_isolation_readonly
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_isolation_readonly.c
          ${CMAKE_CURRENT_SOURCE_DIR}/nfs3_test.c
  TIMEOUT 120 HARNESS_ARGS --needs-root --protocols "3, 4"
    --export-opts "Access_Type = RO$<SEMICOLON>")
sparse_e2e_run(e2e_isolation_readonly_vfs e2e_isolation_readonly
  TIMEOUT 120 HARNESS_ARGS --needs-root --protocols "3, 4" --fsal VFS
    --export-opts "Access_Type = RO$<SEMICOLON>")
