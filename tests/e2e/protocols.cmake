# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# Protocol-layer suites (src/Protocols/NFS, src/include, patches 0005...).
sparse_e2e_test(e2e_proto_copy_xdr
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_copy_xdr.c TIMEOUT 120)

# CLONE (issue #8): an XFS filesystem with reflink on a loop device as a
# second export (skipped with the reason where it cannot be made), and the
# harness's own export on ext4, which cannot share blocks.
set(clonefs_dir ${CMAKE_CURRENT_BINARY_DIR}/clonefs)
sparse_e2e_test(e2e_proto_clone
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_clone.c
  TIMEOUT 180
  HARNESS_ARGS --conf-extra "%include \"${clonefs_dir}/exports.conf\"")
target_compile_definitions(e2e_proto_clone PRIVATE
  E2E_CLONEFS_DIR="${clonefs_dir}")
sparse_loop_fixture(e2e_proto_clone clonefs clonefs-setup.sh)

# Statistics (issues #7, #8): CLONEs on two XFS exports (statsfs-setup.sh)
# and on ext4, read with tools/sparse-stats over a private DBus.
set(statsfs_dir ${CMAKE_CURRENT_BINARY_DIR}/statsfs)
add_test(NAME e2e/e2e_proto_stats
         COMMAND ${SPARSE_HARNESS} --dbus
                 --conf-extra "%include \"${statsfs_dir}/exports.conf\""
                 -- ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_stats.sh ${statsfs_dir})
set_tests_properties(e2e/e2e_proto_stats PROPERTIES LABELS e2e TIMEOUT 120
  ENVIRONMENT "SPARSE_STAGE=${GANESHA_PREFIX};SPARSE_NFS42=$<TARGET_FILE:nfs42>")
sparse_loop_fixture(e2e_proto_stats statsfs statsfs-setup.sh)

# clone_blksize (attribute 77) on ext4 and on the XFS export of the CLONE
# fixture (shared with e2e_proto_clone).
sparse_e2e_test(e2e_proto_clone_blksize
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_clone_blksize.c
  TIMEOUT 60
  HARNESS_ARGS --conf-extra "%include \"${clonefs_dir}/exports.conf\"")
target_compile_definitions(e2e_proto_clone_blksize PRIVATE
  E2E_CLONEFS_DIR="${clonefs_dir}")
set_tests_properties(e2e/e2e_proto_clone_blksize PROPERTIES
  FIXTURES_REQUIRED clonefs)
