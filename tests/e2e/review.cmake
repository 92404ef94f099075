# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# Tests from the FSAL_SPARSE code review: e2e_review_handles,
# e2e_review_shares and e2e_review_owner failed before their fixes;
# e2e_review_io pins the behaviour of 64-bit range corner cases.
foreach(t e2e_review_handles e2e_review_shares e2e_review_io
          e2e_review_owner)
  sparse_e2e_test(${t} SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c TIMEOUT 120)
endforeach()
# credentials other than root only mean something when we are root
set_tests_properties(e2e/e2e_review_owner PROPERTIES SKIP_RETURN_CODE 77)
# e2e_review_handles makes handles with FSAL_SPARSE's codec
target_sources(e2e_review_handles PRIVATE
  ${CMAKE_SOURCE_DIR}/src/FSAL/FSAL_SPARSE/sparse_fh.c)
target_include_directories(e2e_review_handles PRIVATE
  ${CMAKE_SOURCE_DIR}/src/FSAL/FSAL_SPARSE)
