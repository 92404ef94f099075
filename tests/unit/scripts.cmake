# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# Script tests of the build's own scripts.

# cmake/fetch-sources.sh finds the Debian mirror in the apt sources
add_test(NAME unit/fetch_sources_mirror
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/fetch_sources_mirror.sh)
set_tests_properties(unit/fetch_sources_mirror PROPERTIES LABELS unit TIMEOUT 60)

# tools/sparse-stats: usage, and refusals with or without a reason
add_test(NAME unit/sparse_stats_check
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/sparse_stats_check.sh)
set_tests_properties(unit/sparse_stats_check PROPERTIES LABELS unit TIMEOUT 60)

# Every open of FSAL_SPARSE goes through sparse_open.h (O_NONBLOCK)
add_test(NAME unit/fsal_opens_check
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/fsal_opens_check.sh)
set_tests_properties(unit/fsal_opens_check PROPERTIES LABELS unit TIMEOUT 180)

# scripts/build.sh: a first build announced, its steps and progress shown
add_test(NAME unit/build_progress_check
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/build_progress_check.sh)
set_tests_properties(unit/build_progress_check PROPERTIES LABELS unit TIMEOUT 120)

# docs/fsal_sparse.md's file table names every FSAL_SPARSE file
add_test(NAME unit/fsal_doc_files_check
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/fsal_doc_files_check.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(unit/fsal_doc_files_check PROPERTIES LABELS unit TIMEOUT 30)
