# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# Unit suites of FSAL_SPARSE's pure helpers.

sparse_unit_test(check_sparse_map
  SOURCES ${CMAKE_SOURCE_DIR}/src/FSAL/FSAL_SPARSE/sparse_map.c
          ${CMAKE_CURRENT_SOURCE_DIR}/check_sparse_map.c
          ${CMAKE_CURRENT_SOURCE_DIR}/check_sparse_map_race.c
  INCLUDES ${CMAKE_SOURCE_DIR}/src/FSAL/FSAL_SPARSE ${CMAKE_SOURCE_DIR}/src/include)

sparse_unit_test(check_sparse_fh
  SOURCES ${CMAKE_SOURCE_DIR}/src/FSAL/FSAL_SPARSE/sparse_fh.c
          ${CMAKE_CURRENT_SOURCE_DIR}/check_sparse_fh.c
  INCLUDES ${CMAKE_SOURCE_DIR}/src/FSAL/FSAL_SPARSE ${CMAKE_SOURCE_DIR}/src/include)
# The same program on real sparse files in TMPDIR: it exits 77, reported
# as skipped, where that filesystem has no SEEK_HOLE or PUNCH_HOLE.
add_test(NAME unit/check_sparse_map_real COMMAND check_sparse_map real)
set_tests_properties(unit/check_sparse_map_real PROPERTIES
  LABELS unit TIMEOUT 120 SKIP_RETURN_CODE 77)

# The copy engine (issue #8) on real files in TMPDIR, syscalls injected.
sparse_unit_test(check_sparse_copy
  SOURCES ${CMAKE_SOURCE_DIR}/src/FSAL/FSAL_SPARSE/sparse_copy.c
          ${CMAKE_SOURCE_DIR}/src/FSAL/FSAL_SPARSE/sparse_map.c
          ${CMAKE_CURRENT_SOURCE_DIR}/check_sparse_copy.c
  INCLUDES ${CMAKE_SOURCE_DIR}/src/FSAL/FSAL_SPARSE ${CMAKE_SOURCE_DIR}/src/include)
# Its clone path on a reflink XFS image on a loop device: needs root and
# xfsprogs, else exit 77 (skipped) with the reason printed.
add_test(NAME unit/check_sparse_copy_xfs COMMAND check_sparse_copy xfs)
set_tests_properties(unit/check_sparse_copy_xfs PROPERTIES
  LABELS unit TIMEOUT 120 SKIP_RETURN_CODE 77)

# Names and resolution (issue #16): components, UUID text, openat2
# beneath a directory without links or mount crossings.
sparse_unit_test(check_sparse_fs
  SOURCES ${CMAKE_SOURCE_DIR}/src/FSAL/FSAL_SPARSE/sparse_fs.c
          ${CMAKE_SOURCE_DIR}/src/FSAL/FSAL_SPARSE/sparse_open.c
          ${CMAKE_CURRENT_SOURCE_DIR}/check_sparse_fs.c
  INCLUDES ${CMAKE_SOURCE_DIR}/src/FSAL/FSAL_SPARSE
  LIBS blkid)

# The change attribute's table (sparse_change.c): changes through the
# server move it also within one clock tick.
sparse_unit_test(check_sparse_change
  SOURCES ${CMAKE_SOURCE_DIR}/src/FSAL/FSAL_SPARSE/sparse_change.c
          ${CMAKE_CURRENT_SOURCE_DIR}/check_sparse_change.c
  INCLUDES ${CMAKE_SOURCE_DIR}/src/FSAL/FSAL_SPARSE
  LIBS Threads::Threads)
# pNFS (issue #20): data-server addresses, devices, stripes, and the
# data-server handles.
sparse_unit_test(check_sparse_pnfs
  SOURCES ${CMAKE_SOURCE_DIR}/src/FSAL/FSAL_SPARSE/sparse_pnfs_cfg.c
          ${CMAKE_SOURCE_DIR}/src/FSAL/FSAL_SPARSE/sparse_fh.c
          ${CMAKE_CURRENT_SOURCE_DIR}/check_sparse_pnfs.c
  INCLUDES ${CMAKE_SOURCE_DIR}/src/FSAL/FSAL_SPARSE ${CMAKE_SOURCE_DIR}/src/include)
