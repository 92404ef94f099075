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
