# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# Tests from the FSAL_SPARSE code review: e2e_review_handles,
# e2e_review_shares, e2e_review_owner and e2e_review_setattr failed before
# their fixes; e2e_review_io pins the behaviour of 64-bit range corner
# cases.
foreach(t e2e_review_handles e2e_review_shares e2e_review_io
          e2e_review_owner e2e_review_setattr)
  sparse_e2e_test(${t} SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c TIMEOUT 120)
endforeach()
# credentials other than root only mean something when we are root
set_tests_properties(e2e/e2e_review_owner e2e/e2e_review_setattr
  PROPERTIES SKIP_RETURN_CODE 77)
# e2e_review_undo needs an update latency to interleave a local rename with
# a create (see the test); $<SEMICOLON> keeps the config's ';' in one
# argument.
sparse_e2e_test(e2e_review_undo
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_review_undo.c TIMEOUT 120
  HARNESS_ARGS --fsal-opts
  "Test_Metadata_Latency_Ms = 1000$<SEMICOLON> Test_Latency_Scope = UPDATES$<SEMICOLON>")
set_tests_properties(e2e/e2e_review_undo PROPERTIES SKIP_RETURN_CODE 77)
# e2e_review_commit watches the server with strace (skipped when it cannot
# attach).
sparse_e2e_test(e2e_review_commit
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_review_commit.c TIMEOUT 120)
set_tests_properties(e2e/e2e_review_commit PROPERTIES SKIP_RETURN_CODE 77)
