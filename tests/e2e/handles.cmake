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

# Two filesystems with one UUID (an ext4 image copied with cp): the clone
# without its own Filesystem_Identity is refused at start, with one it is
# served apart (uuidclone-setup.sh; skipped where loop mounts fail).
set(uuidclone_dir ${CMAKE_CURRENT_BINARY_DIR}/uuidclone)
sparse_e2e_test(e2e_isolation_clones
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_isolation_clones.c
          ${sparse_fsal_dir}/sparse_fh.c
  TIMEOUT 120
  HARNESS_ARGS --conf-extra "%include \"${uuidclone_dir}/exports.conf\"")
target_include_directories(e2e_isolation_clones PRIVATE ${sparse_fsal_dir})
target_compile_definitions(e2e_isolation_clones PRIVATE
  E2E_UUIDCLONE_DIR="${uuidclone_dir}")
sparse_loop_fixture(e2e_isolation_clones uuidclone uuidclone-setup.sh)
set_property(TEST e2e/e2e_isolation_clones APPEND PROPERTY ENVIRONMENT
  "SPARSE_ALLOW_CONFIG_ERRORS=1")
sparse_e2e_run(e2e_isolation_clones_identity e2e_isolation_clones
  ARGS identity TIMEOUT 120
  HARNESS_ARGS --conf-extra
    "%include \"${uuidclone_dir}/exports-identity.conf\"")
set_tests_properties(e2e/e2e_isolation_clones_identity PROPERTIES
  FIXTURES_REQUIRED uuidclone)
# the identity run writes into the clone the refused run looks at
set_tests_properties(e2e/e2e_isolation_clones e2e/e2e_isolation_clones_identity
  PROPERTIES RESOURCE_LOCK uuidclone)

# Mount points are not crossed; a directory moved out of the export stops
# serving names (root: the harness's private mount namespace holds the
# test's mounts).
sparse_e2e_test(e2e_isolation_mounts
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_isolation_mounts.c
          ${CMAKE_CURRENT_SOURCE_DIR}/nfs3_test.c
  TIMEOUT 180 HARNESS_ARGS --needs-root --protocols "3, 4")

# Two subvolumes of one btrfs: one UUID, two device numbers, served both.
set(btrfs_dir ${CMAKE_CURRENT_BINARY_DIR}/btrfs)
sparse_e2e_run(e2e_isolation_btrfs e2e_isolation_clones
  ARGS btrfs ${btrfs_dir} TIMEOUT 120
  HARNESS_ARGS --conf-extra "%include \"${btrfs_dir}/exports.conf\"")
sparse_loop_fixture(e2e_isolation_btrfs btrfs btrfs-setup.sh)

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
