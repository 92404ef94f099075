# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# Unit suites of FSAL_SPARSE's pure helpers.

sparse_unit_test(check_sparse_map
  SOURCES ${CMAKE_SOURCE_DIR}/src/FSAL/FSAL_SPARSE/sparse_map.c
          ${CMAKE_CURRENT_SOURCE_DIR}/check_sparse_map.c
  INCLUDES ${CMAKE_SOURCE_DIR}/src/FSAL/FSAL_SPARSE)

sparse_unit_test(check_sparse_fh
  SOURCES ${CMAKE_SOURCE_DIR}/src/FSAL/FSAL_SPARSE/sparse_fh.c
          ${CMAKE_CURRENT_SOURCE_DIR}/check_sparse_fh.c
  INCLUDES ${CMAKE_SOURCE_DIR}/src/FSAL/FSAL_SPARSE)
