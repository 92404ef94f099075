# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# Tests from the FSAL_SPARSE code review: e2e_review_handles,
# e2e_review_shares, e2e_review_owner, e2e_review_setattr, e2e_review_undo
# and e2e_review_commit failed before their fixes; e2e_review_io pins the
# behaviour of 64-bit range corner cases.
foreach(t e2e_review_handles e2e_review_shares e2e_review_io)
  sparse_e2e_test(${t} SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c TIMEOUT 120)
endforeach()
# credentials other than root (or setuid bits, owner changes, strace) only
# mean something when we are root
foreach(t e2e_review_owner e2e_review_setattr e2e_review_commit)
  sparse_e2e_test(${t} SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c TIMEOUT 120
    HARNESS_ARGS --needs-root)
endforeach()
# e2e_review_undo needs an update latency to interleave a local rename with
# a create (see the test); $<SEMICOLON> keeps the config's ';' in one
# argument.
sparse_e2e_test(e2e_review_undo
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_review_undo.c TIMEOUT 120
  HARNESS_ARGS --needs-root --fsal-opts
  "Test_Hooks { Metadata_Latency_Ms = 1000$<SEMICOLON> Latency_Scope = UPDATES$<SEMICOLON> }")
# e2e_review_handles makes handles with FSAL_SPARSE's codec
target_sources(e2e_review_handles PRIVATE
  ${CMAKE_SOURCE_DIR}/src/FSAL/FSAL_SPARSE/sparse_fh.c)
target_include_directories(e2e_review_handles PRIVATE
  ${CMAKE_SOURCE_DIR}/src/FSAL/FSAL_SPARSE)
